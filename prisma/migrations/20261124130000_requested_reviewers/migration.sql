-- Requested reviewers become rows (who asked, on which revision, when); reviews keep who requested
-- them, their comment and their latest submission. The old array column was never written.
-- AlterTable
ALTER TABLE "ChangeRequest" DROP COLUMN "requestedReviewers";

-- AlterTable
ALTER TABLE "ChangeRequestReview" ADD COLUMN     "commentId" TEXT,
ADD COLUMN     "requestedById" TEXT,
ADD COLUMN     "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Existing reviews were last submitted when they were recorded.
UPDATE "ChangeRequestReview" SET "updatedAt" = "createdAt";

-- CreateTable
CREATE TABLE "RequestedReviewer" (
    "changeRequestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "requestedById" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RequestedReviewer_pkey" PRIMARY KEY ("changeRequestId","userId")
);

-- CreateIndex
CREATE INDEX "RequestedReviewer_userId_idx" ON "RequestedReviewer"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "ChangeRequestReview_commentId_key" ON "ChangeRequestReview"("commentId");

-- AddForeignKey
ALTER TABLE "ChangeRequestReview" ADD CONSTRAINT "ChangeRequestReview_commentId_fkey" FOREIGN KEY ("commentId") REFERENCES "Comment"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RequestedReviewer" ADD CONSTRAINT "RequestedReviewer_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;
