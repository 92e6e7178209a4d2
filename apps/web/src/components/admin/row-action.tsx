import { useState } from 'react';
import { errorMessage } from '../../lib/errors';
import type { Column } from '../data-table';
import { Button } from '../ui';

/** A table row's confirmed action (revoke, disable...): asks first, and keeps the failure to show above the table. */
export function useRowAction() {
  const [error, setError] = useState<string | null>(null);
  async function act(question: string, failed: string, run: () => Promise<unknown>) {
    if (!window.confirm(question)) return;
    setError(null);
    try {
      await run();
    } catch (err) {
      setError(errorMessage(err, failed));
    }
  }
  return { error, setError, act };
}

/** The last column: one button (`verb`, named "<verb> <name>" for screen readers) on the rows it applies to. */
export function actionColumn<T>(verb: string, name: (row: T) => string, applies: (row: T) => boolean, onClick: (row: T) => void): Column<T> {
  return {
    head: '',
    cell: (row) =>
      applies(row) && (
        <Button variant="secondary" onClick={() => onClick(row)} aria-label={`${verb} ${name(row)}`}>
          {verb}
        </Button>
      ),
  };
}
