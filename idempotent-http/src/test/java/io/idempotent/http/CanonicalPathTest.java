package io.idempotent.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Paths as sent, read by the Servlet 6 rules (section 3.5.2): the canonical path, or the suspicious
 * sequence the rules refuse. Most rows are the specification's own examples.
 */
class CanonicalPathTest {

  @ParameterizedTest(name = "{0} reads as {1}")
  @CsvSource(delimiter = '|', textBlock = """
      /foo/bar                   | /foo/bar
      /foo/bar/                  | /foo/bar/
      /foo/bar;jsessionid=1234   | /foo/bar
      /foo/bar/;jsessionid=1234  | /foo/bar/
      /foo;/bar;                 | /foo/bar
      /foo;/bar;/;               | /foo/bar/
      /foo/b%25r                 | /foo/b%r
      /foo/./bar                 | /foo/bar
      /./foo/bar                 | /foo/bar
      /foo/bar/.                 | /foo/bar
      /foo/bar/./                | /foo/bar/
      /foo/bar/./;               | /foo/bar/
      /foo/.bar                  | /foo/.bar
      /foo/../bar                | /bar
      /foo/./../bar              | /bar
      /foo/bar/..                | /foo
      /foo/bar/../               | /foo/
      /foo/bar/../;              | /foo/
      /foo/..bar                 | /foo/..bar
      /foo/...                   | /foo/...
      /foo//bar                  | /foo/bar
      //foo//bar//               | /foo/bar/
      /foo//../bar               | /bar
      /foo%E2%82%ACbar           | /foo€bar
      /foo%20bar                 | /foo bar
      /café                      | /café
      /                          | /
      //                         | /
      /.                         | /
      /./                        | /
      /sh%6Fp;x=1/payments       | /shop/payments
      """)
  void of_aPathTheRulesAccept_isItsCanonicalForm(String raw, String canonical) {
    assertThat(CanonicalPath.of(raw)).isEqualTo(new CanonicalPath.Canonical(canonical));
  }

  @ParameterizedTest(name = "{0} is refused for {1}")
  @CsvSource(delimiter = '|', textBlock = """
      foo/bar                    | a path that does not start with '/'
      /foo/bar#f                 | a fragment
      /foo%00/bar/               | a control character
      /foo%7Fbar                 | a control character
      /foo%C2%85bar              | a control character
      /foo%09bar                 | a control character
      /foo%2Fbar                 | an encoded '/'
      /foo%2fb%25r               | an encoded '/'
      /foo;%2F/bar               | an encoded '/'
      /foo\\bar                  | a backslash
      /foo%5Cbar                 | a backslash
      /foo/.%5Cbar               | a backslash
      /foo/%2e/bar               | an encoded dot segment
      /foo/%2e%2E/bar            | an encoded dot segment
      /foo/.%2e/bar              | an encoded dot segment
      /foo/%2e;/bar              | a dot segment with a parameter
      /foo/.;/bar                | a dot segment with a parameter
      /foo/..;/bar               | a dot segment with a parameter
      /foo/bar/.;                | a dot segment with a parameter
      /;/foo;/;/bar/;/;          | an empty segment with a parameter
      /foo/;/../bar              | an empty segment with a parameter
      /;/                        | an empty segment with a parameter
      /foo/../../bar             | a '..' segment above the root
      /../foo/bar                | a '..' segment above the root
      /..                        | a '..' segment above the root
      /foo%E2%82                 | percent escapes that are not UTF-8
      /foo%E2%82bar              | percent escapes that are not UTF-8
      /foo%-1/bar                | a '%' not followed by two hexadecimal digits
      /foo%XX/bar                | a '%' not followed by two hexadecimal digits
      /foo%/bar                  | a '%' not followed by two hexadecimal digits
      /foo/bar%0                 | a '%' not followed by two hexadecimal digits
      """)
  void of_aSuspiciousSequence_isNamed(String raw, String sequence) {
    assertThat(CanonicalPath.of(raw)).isEqualTo(new CanonicalPath.Suspicious(sequence));
  }

  @ParameterizedTest(name = "the context path \"{0}\" reads as \"{1}\"")
  @CsvSource(delimiter = '|', value = {"'' | ''", "/shop | /shop", "/sh%6Fp | /shop", "/shop;x=1 | /shop"})
  void of_aContextPath_keepsTheRootContextEmpty(String raw, String canonical) {
    assertThat(CanonicalPath.of(raw)).isEqualTo(new CanonicalPath.Canonical(canonical));
  }
}
