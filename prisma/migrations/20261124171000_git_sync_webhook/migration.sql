-- Git sync webhooks (src/modules/git-sync/webhook.ts): the per-connection secret, sealed.
-- AlterTable
ALTER TABLE "GitSyncConnection" ADD COLUMN     "webhookSecret" TEXT;
