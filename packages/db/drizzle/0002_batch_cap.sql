ALTER TABLE "batches" ADD COLUMN "cap_bytes" bigint;--> statement-breakpoint
ALTER TABLE "batches" ADD COLUMN "cap_used_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Batches associated before this migration: the cap is what the association moved in (the ledger's
-- batch-in and batch-lease-in entries); used is the accounts' usage not charged to the batch itself.
UPDATE "batches" AS b SET
  "cap_bytes" = coalesce((SELECT sum(ce."amount_bytes") FROM "credit_entries" ce
    WHERE ce."source_key" IN ('batch-in:' || b."id", 'batch-lease-in:' || b."id")), 0),
  "cap_used_bytes" = greatest(0, coalesce((SELECT sum(uh."bytes_up" + uh."bytes_down") FROM "usage_hourly" uh
    JOIN "proxy_accounts" pa ON pa."id" = uh."proxy_account_id" WHERE pa."batch_id" = b."id"), 0) - b."total_usage_bytes")
WHERE b."associated_user_id" IS NOT NULL;
