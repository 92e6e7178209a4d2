ALTER TABLE "connection_log" ADD COLUMN "zip" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "connection_log" ADD COLUMN "asn" text DEFAULT '' NOT NULL;