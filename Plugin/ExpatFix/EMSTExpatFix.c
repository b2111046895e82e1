/* SPDX-FileCopyrightText: 2026 The EMST plugin developers
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * LD_PRELOAD work-around for ParaView 5.11 (VTK 9.2) with a libexpat that defers reparsing
 * (expat 2.6.0, backported to Debian 12 as 2.5.0-1+deb12u2 and later). VTK's XML reader feeds
 * an appended-data file to expat in blocks and stops as soon as expat reports the
 * <AppendedData> element, because raw binary bytes follow it. With deferral on, expat may hold
 * an element back until more input arrives, so VTK feeds it the binary bytes too: "not
 * well-formed (invalid token)" (VTK issue 19258).
 *
 * Turning the deferral off restores the pre-2.6 behaviour, parser by parser. Every function that
 * creates or resets a parser is wrapped: the real one (next in the lookup order) runs, then
 * XML_SetReparseDeferralEnabled(parser, XML_FALSE). On an expat without that function the wrappers
 * change nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <expat.h>
#include <stddef.h>

typedef XML_Bool (*SetDeferralFunction)(XML_Parser, XML_Bool);

static void* NextSymbol(const char* name)
{
  return dlsym(RTLD_NEXT, name);
}

static void DisableReparseDeferral(XML_Parser parser)
{
  static SetDeferralFunction setDeferral = NULL;
  static int looked = 0;
  if (!looked)
  {
    setDeferral = (SetDeferralFunction)NextSymbol("XML_SetReparseDeferralEnabled");
    looked = 1;
  }
  if (parser != NULL && setDeferral != NULL)
  {
    setDeferral(parser, XML_FALSE);
  }
}

XML_Parser XML_ParserCreate(const XML_Char* encoding)
{
  typedef XML_Parser (*Function)(const XML_Char*);
  static Function real = NULL;
  if (real == NULL)
  {
    real = (Function)NextSymbol("XML_ParserCreate");
  }
  XML_Parser parser = real(encoding);
  DisableReparseDeferral(parser);
  return parser;
}

XML_Parser XML_ParserCreateNS(const XML_Char* encoding, XML_Char separator)
{
  typedef XML_Parser (*Function)(const XML_Char*, XML_Char);
  static Function real = NULL;
  if (real == NULL)
  {
    real = (Function)NextSymbol("XML_ParserCreateNS");
  }
  XML_Parser parser = real(encoding, separator);
  DisableReparseDeferral(parser);
  return parser;
}

XML_Parser XML_ParserCreate_MM(const XML_Char* encoding, const XML_Memory_Handling_Suite* memsuite,
  const XML_Char* namespaceSeparator)
{
  typedef XML_Parser (*Function)(
    const XML_Char*, const XML_Memory_Handling_Suite*, const XML_Char*);
  static Function real = NULL;
  if (real == NULL)
  {
    real = (Function)NextSymbol("XML_ParserCreate_MM");
  }
  XML_Parser parser = real(encoding, memsuite, namespaceSeparator);
  DisableReparseDeferral(parser);
  return parser;
}

XML_Parser XML_ExternalEntityParserCreate(
  XML_Parser parent, const XML_Char* context, const XML_Char* encoding)
{
  typedef XML_Parser (*Function)(XML_Parser, const XML_Char*, const XML_Char*);
  static Function real = NULL;
  if (real == NULL)
  {
    real = (Function)NextSymbol("XML_ExternalEntityParserCreate");
  }
  XML_Parser parser = real(parent, context, encoding);
  DisableReparseDeferral(parser);
  return parser;
}

/* A reset parser takes the library default again (deferral on). */
XML_Bool XML_ParserReset(XML_Parser parser, const XML_Char* encoding)
{
  typedef XML_Bool (*Function)(XML_Parser, const XML_Char*);
  static Function real = NULL;
  if (real == NULL)
  {
    real = (Function)NextSymbol("XML_ParserReset");
  }
  XML_Bool ok = real(parser, encoding);
  DisableReparseDeferral(parser);
  return ok;
}
