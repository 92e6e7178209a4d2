export { BALANCE_EMPTY_MESSAGE, createGateway, Gateway, type GatewayOptions, type GatewayStats } from './gateway';
export { createBackend, type Backend } from './backend';
export { isPrivateAddress, fillTemplate } from './egress';
export { createLogger, silentLogger, type Logger } from './log';
