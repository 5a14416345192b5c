/*
 * compat.h: the one header every file of probe includes first.
 *
 * It selects the POSIX feature level, pulls in the standard headers the
 * whole code base uses, defines a few attributes, and bans the C library
 * functions that make buffer overflows easy (the list follows git's
 * banned.h).  Platform differences, if any ever appear, live here and not
 * in the code that uses them.
 */
#ifndef PROBE_COMPAT_H
#define PROBE_COMPAT_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#define NORETURN __attribute__((noreturn))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MAYBE_UNUSED __attribute__((unused))
/* a small helper of a hot loop that the compiler would otherwise call */
#define ALWAYS_INLINE __attribute__((always_inline))
#else
#define PRINTF_LIKE(fmt, args)
#define NORETURN
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define MAYBE_UNUSED
#define ALWAYS_INLINE
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Banned: use strbuf, snprintf or memcpy with a checked length instead. */
#define BANNED(func) sorry_##func##_is_a_banned_function
#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef strtok
#define strtok(x, y) BANNED(strtok)

#endif
