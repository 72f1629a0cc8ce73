/** Null-marked: types mean non-null unless annotated {@code @Nullable} (checked by NullAway in the build). */
@NullMarked
package io.idempotent;

import org.jspecify.annotations.NullMarked;
