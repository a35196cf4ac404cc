# The plain TOSA 1.0 schema: src/formats/tosafb/tosa.fbs without tosakit's extension (the lines marked
# tosakit-ext and the BEGIN/END tosakit-ext block), in namespace tosa_plain, compiled by flatc. Reading
# tosakit's files with it shows that a 1.0 reader ignores the extension.
find_package(FlatBuffers REQUIRED CONFIG)
set(_fbs ${CMAKE_SOURCE_DIR}/src/formats/tosafb/tosa.fbs)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_fbs})
file(READ ${_fbs} _text)
string(REGEX REPLACE "// BEGIN tosakit-ext.*// END tosakit-ext" "" _text "${_text}")
string(REGEX REPLACE "[^\n]*tosakit-ext[^\n]*\n" "" _text "${_text}")
string(REPLACE "namespace tosa;" "namespace tosa_plain;" _text "${_text}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/tosafb_plain/tosa_plain.fbs "${_text}")
add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/tosafb_plain/tosa_plain_generated.h
  COMMAND flatbuffers::flatc --cpp -o ${CMAKE_CURRENT_BINARY_DIR}/tosafb_plain
    ${CMAKE_CURRENT_BINARY_DIR}/tosafb_plain/tosa_plain.fbs
  DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/tosafb_plain/tosa_plain.fbs
  COMMENT "flatc: plain 1.0 schema -> tosa_plain_generated.h")
