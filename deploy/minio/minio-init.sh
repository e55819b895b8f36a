#!/bin/sh
# Runs in the MinIO client's image as MinIO's root user (compose's minio-init): the archive's
# bucket, and the two keys the archive's services use in place of the root's (README, "S3 users"):
#   MINIO_SINK_USER         the Iceberg sink, catalog-init and connect-init: list the bucket, read
#                           and write objects, never delete one
#   MINIO_MAINTENANCE_USER  archive maintenance and erase: the same, and delete (expired snapshots,
#                           orphan files, erased rows' files)
# The root key stays with MinIO and this script. Every step is idempotent: `user add` sets the
# secret again, `policy create` replaces the policy, and attaching an attached policy succeeds.
set -eu
: "${ARCHIVE_BUCKET:?}" "${MINIO_SINK_USER:?}" "${MINIO_SINK_PASSWORD:?}"
: "${MINIO_MAINTENANCE_USER:?}" "${MINIO_MAINTENANCE_PASSWORD:?}"

mc alias set archive http://minio:9000 "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD"
mc mb --ignore-existing "archive/$ARCHIVE_BUCKET"

# policy NAME OBJECT_ACTIONS: the bucket's listing and the objects' ACTIONS, on the archive's bucket only.
policy() {
  printf '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetBucketLocation","s3:ListBucket","s3:ListBucketMultipartUploads"],"Resource":["arn:aws:s3:::%s"]},{"Effect":"Allow","Action":[%s],"Resource":["arn:aws:s3:::%s/*"]}]}\n' \
    "$ARCHIVE_BUCKET" "$2" "$ARCHIVE_BUCKET" > "/tmp/$1.json"
  mc admin policy create archive "$1" "/tmp/$1.json"
}
policy prefixlog-archive-sink \
  '"s3:GetObject","s3:PutObject","s3:AbortMultipartUpload","s3:ListMultipartUploadParts"'
policy prefixlog-archive-maintenance \
  '"s3:GetObject","s3:PutObject","s3:DeleteObject","s3:AbortMultipartUpload","s3:ListMultipartUploadParts"'

mc admin user add archive "$MINIO_SINK_USER" "$MINIO_SINK_PASSWORD"
mc admin policy attach archive prefixlog-archive-sink --user "$MINIO_SINK_USER"
mc admin user add archive "$MINIO_MAINTENANCE_USER" "$MINIO_MAINTENANCE_PASSWORD"
mc admin policy attach archive prefixlog-archive-maintenance --user "$MINIO_MAINTENANCE_USER"
