import { z } from 'zod';

/** What the `apiKeys.*` procedures answer (checked with `.output`, and the REST shims' documented responses). */

export const apiKeysListOutput = z.object({
  keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      scopes: z.array(z.enum(['usage:read', 'accounts:read', 'accounts:write', 'lines:generate', 'billing:write'])),
      expiresAt: z.string().nullable(),
      allowedCidrs: z.array(z.string()),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
      prefix: z.string(),
      isDefault: z.boolean(),
    }),
  ),
});

export const apiKeysCreateOutput = z.object({
  key: z.object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.enum(['usage:read', 'accounts:read', 'accounts:write', 'lines:generate', 'billing:write'])),
    expiresAt: z.string().nullable(),
    allowedCidrs: z.array(z.string()),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    prefix: z.string(),
    isDefault: z.boolean(),
  }),
  secret: z.string(),
});

export const apiKeysDeleteOutput = z.object({ deleted: z.literal(true) });
