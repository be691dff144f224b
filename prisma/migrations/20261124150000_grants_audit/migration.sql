-- Issue 18: grants of users and teams on spaces, collections and sites (TeamSpacePermission
-- existed already), invite links scoped to one space or collection, and the append-only audit log.
-- AlterTable
ALTER TABLE "InviteLink" ADD COLUMN     "collectionId" TEXT,
ADD COLUMN     "spaceId" TEXT;

-- CreateTable
CREATE TABLE "UserSpacePermission" (
    "spaceId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserSpacePermission_pkey" PRIMARY KEY ("spaceId","userId")
);

-- CreateTable
CREATE TABLE "UserCollectionPermission" (
    "collectionId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserCollectionPermission_pkey" PRIMARY KEY ("collectionId","userId")
);

-- CreateTable
CREATE TABLE "TeamCollectionPermission" (
    "teamId" TEXT NOT NULL,
    "collectionId" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TeamCollectionPermission_pkey" PRIMARY KEY ("teamId","collectionId")
);

-- CreateTable
CREATE TABLE "UserSitePermission" (
    "siteId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserSitePermission_pkey" PRIMARY KEY ("siteId","userId")
);

-- CreateTable
CREATE TABLE "TeamSitePermission" (
    "teamId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "role" "Role" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TeamSitePermission_pkey" PRIMARY KEY ("teamId","siteId")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" UUID NOT NULL,
    "organizationId" TEXT NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "action" TEXT NOT NULL,
    "actorType" TEXT NOT NULL DEFAULT 'user',
    "actorId" TEXT NOT NULL,
    "actorLabel" TEXT,
    "tokenId" TEXT,
    "source" TEXT NOT NULL DEFAULT 'api',
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "targetLabel" TEXT,
    "clientAddress" TEXT,
    "payload" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "UserSpacePermission_organizationId_userId_idx" ON "UserSpacePermission"("organizationId", "userId");

-- CreateIndex
CREATE INDEX "UserCollectionPermission_organizationId_userId_idx" ON "UserCollectionPermission"("organizationId", "userId");

-- CreateIndex
CREATE INDEX "TeamCollectionPermission_collectionId_idx" ON "TeamCollectionPermission"("collectionId");

-- CreateIndex
CREATE INDEX "UserSitePermission_organizationId_userId_idx" ON "UserSitePermission"("organizationId", "userId");

-- CreateIndex
CREATE INDEX "TeamSitePermission_siteId_idx" ON "TeamSitePermission"("siteId");

-- CreateIndex
CREATE INDEX "AuditEvent_organizationId_occurredAt_idx" ON "AuditEvent"("organizationId", "occurredAt");

-- CreateIndex
CREATE INDEX "AuditEvent_occurredAt_idx" ON "AuditEvent"("occurredAt");

-- AddForeignKey
ALTER TABLE "InviteLink" ADD CONSTRAINT "InviteLink_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "InviteLink" ADD CONSTRAINT "InviteLink_collectionId_fkey" FOREIGN KEY ("collectionId") REFERENCES "Collection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserSpacePermission" ADD CONSTRAINT "UserSpacePermission_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserSpacePermission" ADD CONSTRAINT "UserSpacePermission_organizationId_userId_fkey" FOREIGN KEY ("organizationId", "userId") REFERENCES "Member"("organizationId", "userId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserCollectionPermission" ADD CONSTRAINT "UserCollectionPermission_collectionId_fkey" FOREIGN KEY ("collectionId") REFERENCES "Collection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserCollectionPermission" ADD CONSTRAINT "UserCollectionPermission_organizationId_userId_fkey" FOREIGN KEY ("organizationId", "userId") REFERENCES "Member"("organizationId", "userId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TeamCollectionPermission" ADD CONSTRAINT "TeamCollectionPermission_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TeamCollectionPermission" ADD CONSTRAINT "TeamCollectionPermission_collectionId_fkey" FOREIGN KEY ("collectionId") REFERENCES "Collection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserSitePermission" ADD CONSTRAINT "UserSitePermission_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UserSitePermission" ADD CONSTRAINT "UserSitePermission_organizationId_userId_fkey" FOREIGN KEY ("organizationId", "userId") REFERENCES "Member"("organizationId", "userId") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TeamSitePermission" ADD CONSTRAINT "TeamSitePermission_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TeamSitePermission" ADD CONSTRAINT "TeamSitePermission_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The audit log is append-only: updates are refused, and deletes too, except inside a transaction
-- that set `lectern.audit_prune` to 'on' (the retention job, src/modules/audit/retention.ts).
CREATE FUNCTION "AuditEvent_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('lectern.audit_prune', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'AuditEvent is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "AuditEvent_append_only" BEFORE UPDATE OR DELETE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "AuditEvent_append_only"();
