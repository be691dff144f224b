#!/usr/bin/env bash
# Lectern's quick start, from a new user to a published page and a share link.
# Run it from the clone in a second terminal while `npm start` serves (the CLI attaches to the
# running server's database): bash docs/quickstart.sh
# LECTERN_URL (default http://localhost:8080) and EMAIL (default ada@example.com) may be set.
set -euo pipefail
LECTERN_URL="${LECTERN_URL:-http://localhost:8080}"
EMAIL="${EMAIL:-ada@example.com}"

# A field of the JSON answer read on stdin, by path: json_field id, json_field urls.published
json_field() { node -e 'let s = ""; process.stdin.on("data", (c) => (s += c)).on("end", () => console.log(process.argv[1].split(".").reduce((v, k) => v[k], JSON.parse(s))))' "$1"; }

# 1. A user, an organization they administer and an API token (printed once: keep it).
OUT=$(npx lectern user create --email "$EMAIL" --name "Ada" --org-title "Acme")
TOKEN=$(echo "$OUT" | json_field token)
ORG=$(echo "$OUT" | json_field organization.id)
USER_ID=$(echo "$OUT" | json_field user.id)
H="Authorization: Bearer $TOKEN"
JSON="Content-Type: application/json"

# 2. A space with a page (a new space is edited live: the page is on main at once).
SPACE=$(curl -sSf -H "$H" -H "$JSON" -d '{"title":"Handbook"}' "$LECTERN_URL/v1/orgs/$ORG/spaces" | json_field id)
curl -sSf -H "$H" -H "$JSON" -o /dev/null "$LECTERN_URL/v1/spaces/$SPACE/content" \
  -d '{"changes":[{"operation":"insert_page","title":"Setup","document":{"markdown":"# Setup\n\n1. `npm ci`\n2. `npm start`"}}]}'

# 3. A site that publishes the space, readable by holders of a share link, and the link.
SITE=$(curl -sSf -H "$H" -H "$JSON" -d "{\"title\":\"Handbook\",\"visibility\":\"share-link\",\"spaces\":[\"$SPACE\"]}" "$LECTERN_URL/v1/orgs/$ORG/sites" | json_field id)
curl -sSf -H "$H" -X POST -o /dev/null "$LECTERN_URL/v1/orgs/$ORG/sites/$SITE/publish"
SITE_URL=$(curl -sSf -H "$H" "$LECTERN_URL/v1/orgs/$ORG/sites/$SITE" | json_field urls.published)
SHARE_URL=$(curl -sSf -H "$H" -H "$JSON" -d '{"name":"Reviewers"}' "$LECTERN_URL/v1/orgs/$ORG/sites/$SITE/share-links" | json_field urls.published)

echo "USER_ID=$USER_ID"
echo "ORG=$ORG"
echo "SPACE=$SPACE"
echo "SITE=$SITE"
echo "PAGE_URL=$SITE_URL/setup"
echo "SHARE_URL=$SHARE_URL"
echo "TOKEN=$TOKEN"
