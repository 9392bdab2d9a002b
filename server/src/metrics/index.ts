export { createMetrics, pushServiceLabel, type Metrics, type MetricsOptions } from './metrics.ts';
export { httpMetrics } from './http-metrics.ts';
export { metricsRoute } from './metrics-route.ts';
export { countedAudit } from './counted-audit.ts';
