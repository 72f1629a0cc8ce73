package io.idempotent.builds;

/** A README snippet that a sample's template asks for is missing or not what the template needs. */
final class SnippetException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  SnippetException(String message) {
    super(message);
  }
}
