/**
 * Reading the control records that travel on the input topics (see io.prefixlog.schemas.control).
 */
package io.prefixlog.core.control;
