/**
 * The seller's settings (company, postal address, support email, the legal pages' dates): one row,
 * read by the footer, the legal pages, mails and receipts. Until an owner saves them, the shipped
 * placeholders stand in, so a fresh install runs and the admin overview says what is left to set.
 */
import { eq } from 'drizzle-orm';
import { SELLER_PLACEHOLDERS, sellerPlaceholders, type Seller } from '@proxyhub/core';
import { sellerSettings, type DbOrTx } from '@proxyhub/db';

export async function getSeller(db: DbOrTx): Promise<Seller> {
  const [row] = await db.select().from(sellerSettings).where(eq(sellerSettings.id, 1));
  if (!row) return { ...SELLER_PLACEHOLDERS };
  const { companyName, address, supportEmail, legalUpdatedOn, legalEffectiveOn } = row;
  return { companyName, address, supportEmail, legalUpdatedOn, legalEffectiveOn };
}

/** The settings and which of them still hold the shipped placeholders (the overview's warning). */
export async function sellerForAdmin(db: DbOrTx): Promise<{ seller: Seller; placeholders: string[] }> {
  const seller = await getSeller(db);
  return { seller, placeholders: sellerPlaceholders(seller) };
}

export async function setSeller(tx: DbOrTx, input: Seller): Promise<{ seller: Seller; placeholders: string[] }> {
  await tx
    .insert(sellerSettings)
    .values({ id: 1, ...input })
    .onConflictDoUpdate({ target: sellerSettings.id, set: { ...input, updatedAt: new Date() } });
  return { seller: input, placeholders: sellerPlaceholders(input) };
}
