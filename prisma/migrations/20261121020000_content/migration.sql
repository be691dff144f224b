-- AlterTable
ALTER TABLE "ChangeRequest" ADD COLUMN     "contributors" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "conversationsIssuesCluster" TEXT,
ADD COLUMN     "description" JSONB,
ADD COLUMN     "mergedAt" TIMESTAMP(3),
ADD COLUMN     "requestedReviewers" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "revisionId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "revisionInitial" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "revisionMerged" TEXT,
ADD COLUMN     "revisionMergedAncestor" TEXT NOT NULL DEFAULT '';

-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "changeRequestId" TEXT,
ADD COLUMN     "createdById" TEXT,
ADD COLUMN     "manifest" TEXT NOT NULL DEFAULT '';

-- CreateTable
CREATE TABLE "ContentObject" (
    "hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ContentObject_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "FileBlob" (
    "hash" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FileBlob_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "BodyLink" (
    "bodyHash" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "href" TEXT NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "BodyLink_pkey" PRIMARY KEY ("bodyHash","position")
);

-- CreateTable
CREATE TABLE "ChangeRequestReview" (
    "changeRequestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChangeRequestReview_pkey" PRIMARY KEY ("changeRequestId","userId")
);

-- CreateTable
CREATE TABLE "SearchSection" (
    "spaceId" TEXT NOT NULL,
    "pageId" TEXT NOT NULL,
    "sectionId" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "pageTitle" TEXT NOT NULL,
    "pagePath" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "ancestors" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "search" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, ((((COALESCE("pageTitle", ''::text) || ' '::text) || COALESCE(title, ''::text)) || ' '::text) || COALESCE(body, ''::text)))) STORED,

    CONSTRAINT "SearchSection_pkey" PRIMARY KEY ("spaceId","pageId","sectionId")
);

-- CreateIndex
CREATE INDEX "SearchSection_search_idx" ON "SearchSection" USING GIN ("search");

-- AddForeignKey
ALTER TABLE "ChangeRequestReview" ADD CONSTRAINT "ChangeRequestReview_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;
