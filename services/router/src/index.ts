export * from './create-router.ts';
export * from './app.ts';
