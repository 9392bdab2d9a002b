export { EventBus, type RequestChanged } from './event-bus.ts';
