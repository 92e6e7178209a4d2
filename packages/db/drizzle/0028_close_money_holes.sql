CREATE TABLE "user_networks" (
	"user_id" uuid NOT NULL,
	"network" text NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "user_networks_user_id_network_pk" PRIMARY KEY("user_id","network")
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "bonus_note" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payer_id" text;--> statement-breakpoint
ALTER TABLE "referral_credits" ADD COLUMN "ineligible_reason" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "referral_ineligible_reason" text;--> statement-breakpoint
ALTER TABLE "user_networks" ADD CONSTRAINT "user_networks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "user_networks_network_idx" ON "user_networks" USING btree ("network","last_seen_at");--> statement-breakpoint
CREATE INDEX "payments_payer_idx" ON "payments" USING btree ("payer_id") WHERE "payments"."payer_id" is not null;