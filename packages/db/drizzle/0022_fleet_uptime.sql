CREATE TABLE "uptime_days" (
	"day" date PRIMARY KEY NOT NULL,
	"up_minutes" integer NOT NULL,
	"first_minute_at" timestamp with time zone NOT NULL,
	"last_minute_at" timestamp with time zone NOT NULL,
	CONSTRAINT "uptime_days_minutes_range" CHECK ("uptime_days"."up_minutes" between 0 and 1440)
);
