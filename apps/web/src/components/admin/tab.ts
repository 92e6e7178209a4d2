import type { ComponentType } from 'react';
import type { TFunction } from 'i18next';
import type { RouterOutputs } from '../../session';
import type { UsersList } from './users-list';

export type GeneratedCode = RouterOutputs['admin']['createCodes']['codes'][number];

/** What outlives a tab switch (and is cleared on logout): the generated codes and the users list's filters. */
export interface AdminShared {
  users: UsersList;
  codes: { list: GeneratedCode[]; set: (codes: GeneratedCode[]) => void };
  onSignedOut: () => void;
  /** The alerts list (its open count is on the Alerts tab); undefined until loaded or for roles without it. */
  alerts?: RouterOutputs['adminAlerts']['list'] | undefined;
}

/** One tab of the admin panel: its id (`tab-<id>`, `panel-<id>`), its label (in the language on show) and its panel. */
export interface AdminTab {
  id: string;
  label: (t: TFunction<'admin'>, shared: AdminShared) => string;
  Panel: ComponentType<{ shared: AdminShared }>;
}
