-- Several admins: one can be disabled (sessions end, sign-in refused).
ALTER TABLE "admin_users" ADD COLUMN "disabled_at" timestamp with time zone;