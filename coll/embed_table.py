#!/usr/bin/env python3
"""Embeds coll/selection.table into the library: writes a .cpp defining kBuiltinSelectionTable."""
import sys

source, output = sys.argv[1], sys.argv[2]
text = open(source, encoding='utf-8').read()
delimiter = 'fabmpi_table'
if ')' + delimiter + '"' in text:
    sys.exit(f'{source}: contains the raw-string delimiter )' + delimiter + '"')
with open(output, 'w', encoding='utf-8') as out:
    out.write('// Generated from coll/selection.table by coll/embed_table.py. Do not edit.\n')
    out.write('#include "coll/selection.hpp"\n\n')
    out.write('namespace fabmpi::coll {\n')
    out.write('extern const char kBuiltinSelectionTable[] = R"' + delimiter + '(' + text + ')' + delimiter + '";\n')
    out.write('}  // namespace fabmpi::coll\n')
