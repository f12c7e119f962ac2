/* SPDX-License-Identifier: MIT */
#ifndef TEMPO_HV_VERSION_H
#define TEMPO_HV_VERSION_H

/* The Makefile passes the git revision; a build outside git says "dev". */
#ifndef TEMPO_VERSION
#define TEMPO_VERSION "0.1-dev"
#endif

#endif
