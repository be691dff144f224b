-- AlterTable
ALTER TABLE "GitSyncConnection" ADD COLUMN     "sshPublicKey" TEXT,
ADD COLUMN     "sshHostKey" TEXT;
