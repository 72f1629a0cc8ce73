/** Null-marked: types mean non-null unless annotated {@code @Nullable} (checked by NullAway in the build). */
@NullMarked
package io.idempotent.layered;

import org.jspecify.annotations.NullMarked;
