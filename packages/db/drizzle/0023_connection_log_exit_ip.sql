ALTER TABLE "connection_log" ADD COLUMN "exit_ip" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "connection_log_exit_ip_idx" ON "connection_log" USING btree ("exit_ip","started_at");