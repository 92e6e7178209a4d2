export { default } from '@proxyhub/config/eslint';
