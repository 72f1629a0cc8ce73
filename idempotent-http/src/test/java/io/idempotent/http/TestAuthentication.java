package io.idempotent.http;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;

/** Stands in for a container's authentication: the user named in {@code X-Test-User} is the principal. */
final class TestAuthentication extends HttpFilter {
  private static final long serialVersionUID = 1L;


  static final String USER_HEADER = "X-Test-User";

  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    String user = request.getHeader(USER_HEADER);
    if (user == null) {
      chain.doFilter(request, response);
      return;
    }
    Principal principal = () -> user;
    chain.doFilter(new HttpServletRequestWrapper(request) {
      @Override
      public Principal getUserPrincipal() {
        return principal;
      }

      @Override
      public String getRemoteUser() {
        return user;
      }
    }, response);
  }
}
