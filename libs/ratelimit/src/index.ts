export type {
  AdmissionRequest,
  AdmissionResult,
  LimitScope,
  LimitSet,
  Limiter,
  ReconcileRequest,
  RefusedLimit,
  ReleaseRequest,
  WindowState,
} from './limiter.ts';
export { keyScopeKeys, tenantScopeKeys, type ScopeKeys } from './keys.ts';
export { createMemoryLimiter, type MemoryLimiterOptions } from './memory-limiter.ts';
