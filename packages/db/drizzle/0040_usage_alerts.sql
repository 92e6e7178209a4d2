CREATE TABLE "usage_alert_marks" (
	"meter" text NOT NULL,
	"subject_id" uuid NOT NULL,
	"period" text NOT NULL,
	"notified_percent" integer DEFAULT 0 NOT NULL,
	"limit_bytes" bigint NOT NULL,
	CONSTRAINT "usage_alert_marks_subject_id_meter_pk" PRIMARY KEY("subject_id","meter")
);
--> statement-breakpoint
ALTER TABLE "proxy_accounts" ADD COLUMN "expiry_notified_for" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "usage_alert_percents" integer[] DEFAULT '{80,90}'::integer[] NOT NULL;