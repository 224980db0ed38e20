/* Quoting for messages, byte for byte as GNU coreutils' quote() (gnulib quotearg,
 * locale_quoting_style): 'a\nb' in the C locale, ‘a\nb’ in a UTF-8 one. */
#ifndef RUNLIMIT_QUOTE_H
#define RUNLIMIT_QUOTE_H

#include <stddef.h>

/* Load the user's locale, once: setlocale(LC_ALL, "") as GNU programs do at start, then
 * LC_NUMERIC back to "C", which duration_parse relies on.  Later calls do nothing.  quote()
 * and quote_buf() call it themselves; call it early only to have strerror() and the like
 * speak the user's locale too. */
void quote_locale_init(void);

/* s between quotes, ‘ and ’ when the current LC_CTYPE is UTF-8 and ' and ' otherwise, with
 * \a \b \f \n \r \t \v and \\ as such, the closing quote as a backslash and the quote, and
 * every other non-printable byte, or byte of an invalid or non-printable multibyte
 * character, as a backslash and three octal digits.  The text stays valid until the fourth
 * following call (four slots in turn).  Never NULL; errno is kept.  Without memory for a
 * long text it gives the start of it, "..." and the closing quote.  Not for signal
 * handlers or threads. */
const char *quote(const char *s);

/* The same text into buf of size bytes, as snprintf: returns the length of the whole
 * quoted text, without the final NUL.  If that does not fit, buf gets as many whole
 * characters and escapes as fit, then "..." and the closing quote (or "" if size is too
 * small even for that).  size 0: nothing is written, buf may be NULL. */
size_t quote_buf(char *buf, size_t size, const char *s);

#endif
