# The checked-in generated tables are what their generators emit from the checked-in specification facts
# (data/spec/*.json; docs/VALIDATION.md and docs/SPIRV.md say how to regenerate them).
add_test(NAME op_tables_gen
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/gen_op_tables.py check
          ${CMAKE_SOURCE_DIR}/data/spec/tosa_1_0_ops.json ${CMAKE_SOURCE_DIR}/src/ir/op_tables_gen.cpp)
add_test(NAME spirv_table_gen
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tools/gen_spirv_table.py check
          ${CMAKE_SOURCE_DIR}/data/spec/spirv_tosa_001000_1.json
          ${CMAKE_SOURCE_DIR}/src/formats/spirv/spirv_tosa_table_gen.inc)
