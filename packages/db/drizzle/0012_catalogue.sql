CREATE TABLE "catalogue" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"countries" text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "catalogue_single_row" CHECK ("catalogue"."id" = 1)
);
