-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "subject" TEXT,
    "url" TEXT,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "parts" JSONB NOT NULL DEFAULT '[]',
    "contentHash" TEXT NOT NULL,
    "analysedHash" TEXT,
    "impact" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "ingestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "processedAt" TIMESTAMP(3),

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConversationIssue" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "clusterId" TEXT,
    "index" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "impact" TEXT NOT NULL,
    "terms" JSONB NOT NULL,
    "orderKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "ingestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConversationIssue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConversationsIssuesCluster" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "icon" TEXT NOT NULL,
    "impact" TEXT NOT NULL,
    "muted" BOOLEAN NOT NULL DEFAULT false,
    "issueCount" INTEGER NOT NULL DEFAULT 0,
    "conversationCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ConversationsIssuesCluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Translation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "sourceSpaceId" TEXT NOT NULL,
    "sourceLanguage" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "instructions" JSONB,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "failureReason" TEXT,
    "resultSpaceId" TEXT,
    "resultRevisionId" TEXT,
    "sourceRevisionId" TEXT,
    "pages" JSONB NOT NULL DEFAULT '{}',
    "runs" INTEGER NOT NULL DEFAULT 0,
    "totalWords" INTEGER NOT NULL DEFAULT 0,
    "totalPages" INTEGER NOT NULL DEFAULT 0,
    "totalDurationMs" INTEGER NOT NULL DEFAULT 0,
    "latestRunDurationMs" INTEGER NOT NULL DEFAULT 0,
    "latestPages" INTEGER NOT NULL DEFAULT 0,
    "latestWords" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Translation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentInstructions" (
    "organizationId" TEXT NOT NULL,
    "instructions" JSONB NOT NULL,
    "updatedById" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AgentInstructions_pkey" PRIMARY KEY ("organizationId")
);

-- CreateIndex
CREATE INDEX "Conversation_organizationId_createdAt_idx" ON "Conversation"("organizationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Conversation_organizationId_source_externalId_key" ON "Conversation"("organizationId", "source", "externalId");

-- CreateIndex
CREATE INDEX "ConversationIssue_organizationId_orderKey_idx" ON "ConversationIssue"("organizationId", "orderKey");

-- CreateIndex
CREATE INDEX "ConversationIssue_clusterId_createdAt_idx" ON "ConversationIssue"("clusterId", "createdAt");

-- CreateIndex
CREATE INDEX "ConversationIssue_conversationId_idx" ON "ConversationIssue"("conversationId");

-- CreateIndex
CREATE INDEX "ConversationsIssuesCluster_organizationId_updatedAt_idx" ON "ConversationsIssuesCluster"("organizationId", "updatedAt");

-- CreateIndex
CREATE INDEX "Translation_organizationId_createdAt_idx" ON "Translation"("organizationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Translation_sourceSpaceId_language_key" ON "Translation"("sourceSpaceId", "language");

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationIssue" ADD CONSTRAINT "ConversationIssue_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationIssue" ADD CONSTRAINT "ConversationIssue_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "ConversationsIssuesCluster"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationsIssuesCluster" ADD CONSTRAINT "ConversationsIssuesCluster_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Translation" ADD CONSTRAINT "Translation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Translation" ADD CONSTRAINT "Translation_sourceSpaceId_fkey" FOREIGN KEY ("sourceSpaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentInstructions" ADD CONSTRAINT "AgentInstructions_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
