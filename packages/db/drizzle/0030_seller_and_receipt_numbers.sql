CREATE TABLE "receipt_counters" (
	"year" integer PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "seller_settings" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"company_name" text NOT NULL,
	"address" text NOT NULL,
	"support_email" text NOT NULL,
	"legal_updated_on" text NOT NULL,
	"legal_effective_on" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "seller_settings_single_row" CHECK ("seller_settings"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "receipt_number" text;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_receipt_number" ON "payments" USING btree ("receipt_number");--> statement-breakpoint
-- Orders credited before receipts were numbered: numbered per UTC year in the order they were credited.
UPDATE "payments" SET "receipt_number" = numbered."number"
FROM (
	SELECT "id",
		extract(year FROM "credited_at" AT TIME ZONE 'UTC')::int || '-' ||
		lpad(n::text, greatest(6, length(n::text)), '0') AS "number"
	FROM (
		SELECT "id", "credited_at",
			row_number() OVER (PARTITION BY extract(year FROM "credited_at" AT TIME ZONE 'UTC') ORDER BY "credited_at", "id") AS n
		FROM "payments" WHERE "credited_at" IS NOT NULL
	) ranked
) numbered
WHERE "payments"."id" = numbered."id";
--> statement-breakpoint
INSERT INTO "receipt_counters" ("year", "last_number")
SELECT extract(year FROM "credited_at" AT TIME ZONE 'UTC')::int, count(*)::int
FROM "payments" WHERE "credited_at" IS NOT NULL
GROUP BY 1;
