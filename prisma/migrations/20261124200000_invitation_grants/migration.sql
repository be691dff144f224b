-- Issue 18 (lane W18): an invitation carries the grants inviteToSpace/inviteToCollection/inviteToSite
-- gave by email to an account that is not yet a member; they are applied when it accepts.

-- AlterTable
ALTER TABLE "OrganizationInvitation" ADD COLUMN     "grants" JSONB NOT NULL DEFAULT '[]';
