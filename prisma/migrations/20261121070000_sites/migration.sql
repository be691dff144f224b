-- CreateTable
CREATE TABLE "Site" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'basic',
    "title" TEXT NOT NULL,
    "visibility" TEXT NOT NULL DEFAULT 'public',
    "published" BOOLEAN NOT NULL DEFAULT false,
    "hostname" TEXT,
    "basename" TEXT,
    "proxy" TEXT,
    "adaptiveContent" BOOLEAN NOT NULL DEFAULT false,
    "agentsContext" TEXT NOT NULL DEFAULT 'included',
    "defaultSiteSectionId" TEXT,
    "defaultSiteSpaceId" TEXT,
    "adaptiveSchema" JSONB,
    "adaptiveSchemaUpdatedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Site_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SiteSection" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "sectionGroupId" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "path" TEXT NOT NULL,
    "condition" TEXT,
    "icon" TEXT,
    "defaultSiteSpaceId" TEXT,
    "position" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SiteSection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SiteSectionGroup" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "parentId" TEXT,
    "title" TEXT NOT NULL,
    "icon" TEXT,
    "position" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SiteSectionGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SiteSpace" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "sectionId" TEXT,
    "spaceId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "condition" TEXT,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "position" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SiteSpace_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SiteShareLink" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SiteShareLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Site_hostname_key" ON "Site"("hostname");

-- CreateIndex
CREATE INDEX "Site_organizationId_createdAt_idx" ON "Site"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "SiteSection_siteId_sectionGroupId_position_idx" ON "SiteSection"("siteId", "sectionGroupId", "position");

-- CreateIndex
CREATE INDEX "SiteSectionGroup_siteId_parentId_position_idx" ON "SiteSectionGroup"("siteId", "parentId", "position");

-- CreateIndex
CREATE INDEX "SiteSpace_siteId_sectionId_position_idx" ON "SiteSpace"("siteId", "sectionId", "position");

-- CreateIndex
CREATE INDEX "SiteSpace_spaceId_idx" ON "SiteSpace"("spaceId");

-- CreateIndex
CREATE UNIQUE INDEX "SiteShareLink_key_key" ON "SiteShareLink"("key");

-- CreateIndex
CREATE INDEX "SiteShareLink_siteId_createdAt_idx" ON "SiteShareLink"("siteId", "createdAt");

-- AddForeignKey
ALTER TABLE "Site" ADD CONSTRAINT "Site_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSection" ADD CONSTRAINT "SiteSection_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSection" ADD CONSTRAINT "SiteSection_sectionGroupId_fkey" FOREIGN KEY ("sectionGroupId") REFERENCES "SiteSectionGroup"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSectionGroup" ADD CONSTRAINT "SiteSectionGroup_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSectionGroup" ADD CONSTRAINT "SiteSectionGroup_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "SiteSectionGroup"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSpace" ADD CONSTRAINT "SiteSpace_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSpace" ADD CONSTRAINT "SiteSpace_sectionId_fkey" FOREIGN KEY ("sectionId") REFERENCES "SiteSection"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteSpace" ADD CONSTRAINT "SiteSpace_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteShareLink" ADD CONSTRAINT "SiteShareLink_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;
