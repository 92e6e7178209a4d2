/** The settings namespace in English: the spec's own words. */
export default {
  language: {
    title: 'Language',
    description: "The language of the app, of your mails and of the Telegram bot's replies.",
    saveFailed: 'Failed to save your language',
  },
} as const;
