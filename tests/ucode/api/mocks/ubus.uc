// SPDX-License-Identifier: Apache-2.0
//
// Mock of ucode's "ubus" module for the API tests: connect() returns a
// connection whose call() answers canned replies and records each call.
//
//   mock_setup({ "<object>.<method>": reply, ... } | null)
//       reply { mock_error: "Invalid argument" }: call() fails with it
//       null: no ubus at all (connect() fails, as without ubusd)
//   mock_calls()   [ [ object, method, args ], ... ]

'use strict';

// state shared by every instance of this module (see mocks/fs.uc)
const S = global.mock_ubus ??= { replies: {}, calls: [], last_error: null };

export function mock_setup(r) {
	S.replies = r;
	S.calls = [];
};

export function mock_calls() {
	return S.calls;
};

export function connect() {
	if (S.replies == null) {
		S.last_error = 'Connection failed';
		return null;
	}

	return {
		call: (object, method, args) => {
			push(S.calls, [ object, method, args ]);

			let k = `${object}.${method}`;

			if (!exists(S.replies, k)) {
				S.last_error = 'Not found';
				return null;
			}

			// { mock_error: "<libubus status text>" }: the call fails
			let r = S.replies[k];

			if (type(r) == 'object' && r.mock_error) {
				S.last_error = r.mock_error;
				return null;
			}

			return r;
		},
		disconnect: () => true,
		error: () => S.last_error
	};
};

export function error() {
	return S.last_error;
};
