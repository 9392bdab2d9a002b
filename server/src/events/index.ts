export { EventBus, type DeviceRemoved, type LiveEvent, type RequestChanged } from './event-bus.ts';
export { connectRedisEventBus, RedisEventBus, type RedisEventBusOptions } from './redis-event-bus.ts';
