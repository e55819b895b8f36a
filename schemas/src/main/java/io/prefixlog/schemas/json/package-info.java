/** The one JSON mapper configuration and the Serde built on it. */
package io.prefixlog.schemas.json;
