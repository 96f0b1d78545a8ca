import Fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { INTERNAL_AUTH_REFUSED_HEADER, INTERNAL_TOKEN_ENV, parseInternalTokens, requireInternalToken, type InternalTokens } from './internal-token.ts';

const NEW = 'new-internal-token-0123456789abcdef';
const OLD = 'old-internal-token-0123456789abcdef';

describe('parseInternalTokens', () => {
  it('should read one token as the one sent and accepted', () => {
    expect(parseInternalTokens(NEW)).toEqual([NEW]);
  });

  it('should read a list in order: the first is the one sent', () => {
    expect(parseInternalTokens(`${NEW},${OLD}`)).toEqual([NEW, OLD]);
  });

  it('should ignore whitespace around each token', () => {
    expect(parseInternalTokens(` ${NEW} ,\t${OLD}\n`)).toEqual([NEW, OLD]);
  });

  it('should read unset or empty as no token (unauthenticated hops)', () => {
    expect(parseInternalTokens(undefined)).toBeUndefined();
    expect(parseInternalTokens('')).toBeUndefined();
  });

  it('should refuse an empty item, naming the variable but never echoing its value', () => {
    for (const value of [`${NEW},`, `,${OLD}`, `${NEW},,${OLD}`, `${NEW}, ,${OLD}`, ' ']) {
      let thrown: unknown;
      try {
        parseInternalTokens(value);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      const message = (thrown as Error).message;
      expect(message).toContain(INTERNAL_TOKEN_ENV);
      expect(message).toMatch(/empty item/);
      expect(message).not.toContain(NEW);
      expect(message).not.toContain(OLD);
    }
  });
});

describe('requireInternalToken', () => {
  async function appWith(tokens: InternalTokens) {
    const app = Fastify({ logger: false });
    app.addHook('onRequest', requireInternalToken(tokens));
    app.get('/internal/v1/thing', async () => 'served');
    onTestFinished(() => app.close());
    return (authorization?: string) => app.inject({ url: '/internal/v1/thing', headers: authorization === undefined ? {} : { authorization } });
  }

  it('should accept any of its tokens and refuse every other', async () => {
    const call = await appWith([NEW, OLD]);
    for (const token of [NEW, OLD]) expect((await call(`Bearer ${token}`)).body).toBe('served');
    for (const authorization of [undefined, `Bearer ${NEW},${OLD}`, `Bearer ${NEW}x`, `Bearer ${OLD.slice(1)}`, `Basic ${NEW}`, 'Bearer other-token-0123456789']) {
      const refused = await call(authorization);
      expect(refused.statusCode).toBe(401);
      expect(refused.headers[INTERNAL_AUTH_REFUSED_HEADER]).toBe('refused');
      expect(refused.body).not.toContain(NEW);
      expect(refused.body).not.toContain(OLD);
    }
  });

  it('should refuse a token once it is no longer in the list', async () => {
    const call = await appWith([NEW]);
    expect((await call(`Bearer ${NEW}`)).statusCode).toBe(200);
    expect((await call(`Bearer ${OLD}`)).statusCode).toBe(401);
  });
});
