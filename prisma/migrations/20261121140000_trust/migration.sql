-- Issue 13 (trust): invitations an existing account must accept (finding 9), its consent to an
-- organization's single sign-on, and custom-hostname claims pending proof of ownership (finding 14).

-- AlterTable
ALTER TABLE "Member" ADD COLUMN     "ssoConsentAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "OrganizationInvitation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" "Role",
    "sso" BOOLEAN NOT NULL DEFAULT false,
    "invitedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OrganizationInvitation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HostnameClaim" (
    "siteId" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "checkedAt" TIMESTAMP(3),

    CONSTRAINT "HostnameClaim_pkey" PRIMARY KEY ("siteId")
);

-- CreateIndex
CREATE INDEX "OrganizationInvitation_userId_idx" ON "OrganizationInvitation"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "OrganizationInvitation_organizationId_userId_key" ON "OrganizationInvitation"("organizationId", "userId");

-- CreateIndex
CREATE INDEX "HostnameClaim_hostname_idx" ON "HostnameClaim"("hostname");

-- AddForeignKey
ALTER TABLE "OrganizationInvitation" ADD CONSTRAINT "OrganizationInvitation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrganizationInvitation" ADD CONSTRAINT "OrganizationInvitation_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HostnameClaim" ADD CONSTRAINT "HostnameClaim_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

