import common from './common';
import publicSite from './public';
import auth from './auth';
import dashboard from './dashboard';
import proxies from './proxies';
import settings from './settings';
import billing from './billing';
import admin from './admin';
import errors from './errors';
import mail from './mail';
import network from './network';
import bot from './bot';

/** Every namespace of this language, for the server (mails, the bot), which loads them all at once. */
export default { common, public: publicSite, auth, dashboard, proxies, settings, billing, admin, network, errors, mail, bot };
