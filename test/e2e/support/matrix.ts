import { test } from 'vitest';

/**
 * The conformance matrix: every cell is one vitest test, and the file prints a table of
 * pass/fail per (client operation × upstream protocol) when it ends.
 */
export class Matrix {
  readonly #cells = new Map<string, Map<string, 'pass' | 'FAIL'>>();
  readonly #columns: string[];

  constructor(columns: readonly string[]) {
    this.#columns = [...columns];
  }

  cell(row: string, column: string, body: () => Promise<void>, timeout?: number): void {
    test(`${row} → ${column} upstream`, async () => {
      const rowCells = this.#cells.get(row) ?? new Map<string, 'pass' | 'FAIL'>();
      this.#cells.set(row, rowCells);
      rowCells.set(column, 'FAIL');
      await body();
      rowCells.set(column, 'pass');
    }, timeout);
  }

  render(title: string): string {
    const width = Math.max(...[...this.#cells.keys()].map((row) => row.length), 10);
    const header = `${'client operation'.padEnd(width)} | ${this.#columns.map((column) => column.padEnd(16)).join(' | ')}`;
    const lines = [...this.#cells].map(
      ([row, cells]) => `${row.padEnd(width)} | ${this.#columns.map((column) => (cells.get(column) ?? '-').padEnd(16)).join(' | ')}`,
    );
    return `\n${title}\n${header}\n${'-'.repeat(header.length)}\n${lines.join('\n')}\n`;
  }
}
