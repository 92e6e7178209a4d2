CREATE TABLE "upstream_provider_days" (
	"upstream_id" uuid NOT NULL,
	"day" date NOT NULL,
	"provider_bytes" bigint DEFAULT 0 NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "upstream_provider_days_pk" PRIMARY KEY("upstream_id","day"),
	CONSTRAINT "upstream_provider_days_bytes_nonnegative" CHECK ("upstream_provider_days"."provider_bytes" >= 0)
);
--> statement-breakpoint
ALTER TABLE "upstream_provider_days" ADD CONSTRAINT "upstream_provider_days_upstream_id_upstreams_id_fk" FOREIGN KEY ("upstream_id") REFERENCES "public"."upstreams"("id") ON DELETE cascade ON UPDATE no action;