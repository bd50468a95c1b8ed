# cmake -DBUILD_DIR=... -DTARGET=... -DHEADER=... -P expect_build_failure.cmake
# Passes when building TARGET fails because HEADER is not found, i.e. the module include interfaces
# refused it; any other outcome (success, or a failure for another reason) fails the test.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${TARGET} built: \"${HEADER}\" was reachable without linking its module")
endif()
string(REGEX MATCH "${HEADER}[^\n]*(No such file|not found)" refused "${output}")
if(NOT refused)
  message(FATAL_ERROR "${TARGET} failed to build for another reason than a missing \"${HEADER}\":\n${output}")
endif()
message(STATUS "\"${HEADER}\" is refused to a target that does not link its module")
