import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The package boundaries of design §6 are lint errors; these cases prove the rules bite. */
describe('import boundaries', () => {
  const eslint = new ESLint({ cwd: root });
  const messagesFor = async (code: string, file: string) =>
    (await eslint.lintText(code, { filePath: `${root}/${file}` }))[0]?.messages.map((message) => message.ruleId) ?? [];

  it.each([
    ['a service importing another service', "import { createRouter } from '@switchyard/router';\nexport const x = createRouter;\n", 'services/ingress/src/probe.ts'],
    ['a lib importing a service', "import { buildIngress } from '@switchyard/ingress';\nexport const x = buildIngress;\n", 'libs/formats/src/probe.ts'],
    ['a deep import into a package', "import { wireFormats } from '@switchyard/formats/src/registry.ts';\nexport const x = wireFormats;\n", 'services/router/src/probe.ts'],
  ])('should refuse %s', async (_case, code, file) => {
    expect(await messagesFor(code, file)).toContain('no-restricted-imports');
  });

  it('should allow the gateway CLI to compose services', async () => {
    expect(await messagesFor("import { createRouter } from '@switchyard/router';\nexport const x = createRouter;\n", 'services/gateway/src/probe.ts')).toEqual([]);
  });
});
