export * from './app.ts';
export * from './forwarded-requests.ts';
