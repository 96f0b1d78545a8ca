import { test } from 'vitest';

type CellState = 'pass' | 'FAIL' | 'known bug' | 'FIXED? (update)';

/**
 * The conformance matrix: every cell is one vitest test, and the file prints a table of
 * pass/fail per (client operation × upstream protocol) when it ends.
 */
export class Matrix {
  readonly #cells = new Map<string, Map<string, CellState>>();
  readonly #columns: string[];

  constructor(columns: readonly string[]) {
    this.#columns = [...columns];
  }

  cell(row: string, column: string, body: () => Promise<void>, timeout?: number): void {
    test(`${row} → ${column} upstream`, async () => {
      const rowCells = this.#row(row);
      rowCells.set(column, 'FAIL');
      await body();
      rowCells.set(column, 'pass');
    }, timeout);
  }

  /**
   * A cell that fails today because of a bug outside the code under test's reach (named in
   * `bug`): a `test.fails`, shown as `known bug`. When the bug is fixed the test fails, so the
   * cell is turned back into a plain one. `MATRIX_RUN_KNOWN_BUGS=1` runs them as plain cells, to
   * read their failures.
   */
  knownBug(row: string, column: string, bug: string, body: () => Promise<void>, timeout?: number): void {
    if (process.env.MATRIX_RUN_KNOWN_BUGS === '1') return this.cell(row, column, body, timeout);
    test.fails(`${row} → ${column} upstream [known bug: ${bug}]`, async () => {
      const rowCells = this.#row(row);
      rowCells.set(column, 'FIXED? (update)');
      try {
        await body();
      } catch (error) {
        rowCells.set(column, 'known bug');
        throw error;
      }
    }, timeout);
  }

  #row(row: string): Map<string, CellState> {
    const rowCells = this.#cells.get(row) ?? new Map<string, CellState>();
    this.#cells.set(row, rowCells);
    return rowCells;
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
