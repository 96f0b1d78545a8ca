export * from './create-router.ts';
export * from './app.ts';
export * from './responses-store/index.ts';
