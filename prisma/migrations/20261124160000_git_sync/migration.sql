-- Git sync (src/modules/git-sync): a space's connection to a repository.
-- CreateTable
CREATE TABLE "GitSyncConnection" (
    "spaceId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "credential" TEXT,
    "ref" TEXT NOT NULL DEFAULT 'refs/heads/main',
    "folder" TEXT NOT NULL DEFAULT '',
    "lastCommit" TEXT,
    "lastRevisionId" TEXT,
    "paths" JSONB NOT NULL DEFAULT '{}',
    "config" JSONB,
    "operation" JSONB,
    "pollSeconds" INTEGER NOT NULL DEFAULT 300,
    "nextPollAt" TIMESTAMP(3),
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GitSyncConnection_pkey" PRIMARY KEY ("spaceId")
);

-- CreateIndex
CREATE INDEX "GitSyncConnection_nextPollAt_idx" ON "GitSyncConnection"("nextPollAt");

-- AddForeignKey
ALTER TABLE "GitSyncConnection" ADD CONSTRAINT "GitSyncConnection_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

