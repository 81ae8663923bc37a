# Runs the default-character generator and compares its output with the committed file.
execute_process(COMMAND ${GEN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_character failed (${rc})")
endif()
file(SHA256 ${OUT} got)
file(SHA256 ${REF} want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "assets/default.glb differs from what tools/gen_character.c writes: "
                      "run `cmake --build build --target regen-default` and commit it")
endif()
message(STATUS "assets/default.glb matches its generator (${got})")
