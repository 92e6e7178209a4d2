/** Text placed in HTML we write ourselves (mail bodies, the sandbox payment page). */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
