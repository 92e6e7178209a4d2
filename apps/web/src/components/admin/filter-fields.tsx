import type { ReactNode } from 'react';
import { Field } from '../ui';

export interface FilterField<K extends string> {
  key: K;
  label: string;
  placeholder: string;
  type?: string;
}

/** A row of text filters kept in one record (the audit log's, the abuse look-up's). */
export function FilterFields<K extends string>({
  fields,
  values,
  onChange,
  className = 'grid-3',
  children,
}: {
  fields: readonly FilterField<K>[];
  values: Record<K, string>;
  onChange: (values: Record<K, string>) => void;
  className?: string;
  /** Further filters after the text ones (a select). */
  children?: ReactNode;
}) {
  return (
    <div className={className}>
      {fields.map((f) => (
        <Field
          key={f.key}
          label={f.label}
          type={f.type ?? 'text'}
          placeholder={f.placeholder}
          value={values[f.key]}
          onChange={(e) => onChange({ ...values, [f.key]: e.target.value })}
        />
      ))}
      {children}
    </div>
  );
}
